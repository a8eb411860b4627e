package assign

// A min-cost flow solver, small enough to read in one sitting. Plan's
// rules (balance first, then tasks kept, then key groups kept) are costs
// compared lexicographically, so no rule is a large constant that could
// overflow or be outweighed by the next one.

// cost is an edge's cost, compared lexicographically: a unit of balance
// outweighs any number of tasks kept, a task any number of key groups.
type cost struct{ balance, tasks, groups int64 }

func (c cost) add(o cost) cost {
	return cost{c.balance + o.balance, c.tasks + o.tasks, c.groups + o.groups}
}

func (c cost) neg() cost { return cost{-c.balance, -c.tasks, -c.groups} }

func (c cost) less(o cost) bool {
	if c.balance != o.balance {
		return c.balance < o.balance
	}
	if c.tasks != o.tasks {
		return c.tasks < o.tasks
	}
	return c.groups < o.groups
}

// edge is a residual edge; edges are added in pairs, so e^1 is e's reverse.
type edge struct {
	to, cap int
	cost    cost
}

// graph is a flow network whose nodes are 0..len(adj)-1.
type graph struct {
	edges []edge
	adj   [][]int // edge indexes leaving each node, in insertion order
}

func (g *graph) node() int {
	g.adj = append(g.adj, nil)
	return len(g.adj) - 1
}

// link adds an edge of capacity cp and its reverse, and returns its index.
func (g *graph) link(from, to, cp int, c cost) int {
	g.edges = append(g.edges, edge{to: to, cap: cp, cost: c}, edge{to: from, cost: c.neg()})
	g.adj[from] = append(g.adj[from], len(g.edges)-2)
	g.adj[to] = append(g.adj[to], len(g.edges)-1)
	return len(g.edges) - 2
}

// flow returns how much flow an edge added by link carries.
func (g *graph) flow(e int) int { return g.edges[e^1].cap }

// minCostFlow sends up to want units from s to t along successive
// shortest paths and returns how many it sent. Each step sends along a
// cheapest path of the residual graph, so the flow of every value is of
// least cost; the graph Plan builds is acyclic, so the residual graph
// never has a negative cycle. Paths are found by a queue-based
// Bellman-Ford, since costs are negative; the order of the queue and of
// the edges decides between equal paths, which makes the result
// deterministic.
func (g *graph) minCostFlow(s, t, want int) int {
	sent := 0
	for sent < want {
		via, ok := g.cheapestPath(s, t)
		if !ok {
			break
		}
		push := want - sent
		for v := t; v != s; v = g.edges[via[v]^1].to {
			push = min(push, g.edges[via[v]].cap)
		}
		for v := t; v != s; v = g.edges[via[v]^1].to {
			g.edges[via[v]].cap -= push
			g.edges[via[v]^1].cap += push
		}
		sent += push
	}
	return sent
}

// cheapestPath returns, for each node on a cheapest s→t path of the
// residual graph, the edge it is reached by.
func (g *graph) cheapestPath(s, t int) (via []int, ok bool) {
	n := len(g.adj)
	dist := make([]cost, n)
	reached := make([]bool, n)
	queued := make([]bool, n)
	via = make([]int, n)
	reached[s], queued[s] = true, true
	queue := []int{s}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		queued[u] = false
		for _, e := range g.adj[u] {
			ed := g.edges[e]
			if ed.cap == 0 {
				continue
			}
			d := dist[u].add(ed.cost)
			if reached[ed.to] && !d.less(dist[ed.to]) {
				continue
			}
			dist[ed.to], reached[ed.to], via[ed.to] = d, true, e
			if !queued[ed.to] {
				queued[ed.to] = true
				queue = append(queue, ed.to)
			}
		}
	}
	return via, reached[t]
}
