package assign

import (
	"fmt"
	"slices"
)

// Plan's placement is a min-cost flow (flow.go): every task sends one unit
// of flow to the sink through the worker it is placed on.
//
//	source → tasks ──(preference)──────→ op×worker ─(base | extra)→ worker ─(base | extra)→ sink
//	           └───→ op's free node ──→ op×worker
//
// Balance is capacities: an op×worker node passes at most ⌈p/n⌉ tasks of
// the operator to its worker, a worker at most ⌈T/n⌉ tasks in all (T tasks,
// n workers). The lower bounds ⌊p/n⌋ and ⌊T/n⌋ are "base" edges whose cost
// has balance -1, the first thing costs compare, so a cheapest flow fills
// every one of them (some flow does: see below), which leaves each count
// at its floor or its ceiling. A task's edge to the op×worker node of a
// worker that holds its state costs what staying there saves (tasks, key
// groups); the free node reaches every worker at no saving. The cheapest
// flow is then a placement that is balanced and keeps the most state.
//
// Both balances hold at once: give each operator's ⌊p/n⌋ tasks to every
// worker, then deal the remainders p mod n < n out round-robin over the
// workers, continuing where the previous operator stopped; no worker gets
// two of one operator's, and the totals differ by at most one.
//
// Tasks of an operator with the same preferences (on the same worker, with
// ranges of one length, or with no state on any live worker) are
// interchangeable, so one node carries them all and one path carries as
// many as the capacities allow: the number of path searches grows with
// the groups and workers rather than with the tasks (BenchmarkPlan).

// network is the flow network of one plan and what is needed to read the
// placement back.
type network struct {
	g            graph
	source, sink int
	ops          []opNetwork
}

// opNetwork is one operator's part of the network.
type opNetwork struct {
	groups []taskGroup
	spread []int // the free node's edge to each worker
}

// taskGroup is an operator's tasks with the same preferences.
type taskGroup struct {
	tasks  []int // task indexes, ascending
	direct []preferenceEdge
	free   int // the edge to the operator's free node
}

// preferenceEdge is a group's edge to a worker its tasks prefer.
type preferenceEdge struct{ worker, edge int }

// place returns the worker of every task of ops (owners[k][i] for task i
// of ops[k]) over the sorted, non-empty workers.
func place(prev *Assignment, ops []Operator, workers []string) [][]string {
	n := &network{}
	n.source, n.sink = n.g.node(), n.g.node()
	total := totalTasks(ops)
	workerNodes := make([]int, len(workers))
	for w := range workers {
		workerNodes[w] = n.g.node()
		n.bounded(workerNodes[w], n.sink, total, len(workers))
	}
	for _, op := range ops {
		n.addOperator(op, preferences(prev, op, workers), workerNodes)
	}
	if sent := n.g.minCostFlow(n.source, n.sink, total); sent != total {
		// The capacities admit every task (the comment above); a shortfall
		// is a bug in this file, not an input Plan could refuse.
		panic("assign: the placement network cannot place every task")
	}
	owners := make([][]string, len(ops))
	for k, op := range ops {
		owners[k] = n.owners(n.ops[k], op.Parallelism, workers)
	}
	return owners
}

func totalTasks(ops []Operator) int {
	total := 0
	for _, op := range ops {
		total += op.Parallelism
	}
	return total
}

// bounded links from to to so that a cheapest flow passes ⌊count/n⌋ or
// ⌈count/n⌉ units over it.
func (n *network) bounded(from, to, count, workers int) {
	if base := count / workers; base > 0 {
		n.g.link(from, to, base, cost{balance: -1})
	}
	if count%workers > 0 {
		n.g.link(from, to, 1, cost{})
	}
}

// addOperator adds op's task groups, free node and op×worker nodes.
func (n *network) addOperator(op Operator, prefs [][]preference, workerNodes []int) {
	free := n.g.node()
	opWorker := make([]int, len(workerNodes))
	on := opNetwork{spread: make([]int, len(workerNodes))}
	for w, wn := range workerNodes {
		opWorker[w] = n.g.node()
		n.bounded(opWorker[w], wn, op.Parallelism, len(workerNodes))
		on.spread[w] = n.g.link(free, opWorker[w], op.Parallelism, cost{})
	}
	for _, tasks := range groupTasks(prefs) {
		g, size := n.g.node(), len(tasks)
		n.g.link(n.source, g, size, cost{})
		tg := taskGroup{tasks: tasks}
		for _, p := range prefs[tasks[0]] {
			tg.direct = append(tg.direct, preferenceEdge{p.worker, n.g.link(g, opWorker[p.worker], size, p.saving)})
		}
		tg.free = n.g.link(g, free, size, cost{})
		on.groups = append(on.groups, tg)
	}
	n.ops = append(n.ops, on)
}

// groupTasks groups the task indexes whose preferences are equal, in the
// order of their first task.
func groupTasks(prefs [][]preference) [][]int {
	var groups [][]int
	index := map[string]int{}
	for i, p := range prefs {
		key := fmt.Sprint(p)
		g, ok := index[key]
		if !ok {
			g = len(groups)
			index[key] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// owners reads one operator's placement out of the flow. A group's tasks
// go, in index order, first to the workers its preference edges carry
// flow to, then to the free node; the free node's tasks are dealt to the
// workers it sent flow to, in task and worker order. Which task of a group
// goes where costs the same (they are interchangeable), and so does which
// free task goes where (none holds state on those workers, or the flow
// would not be cheapest).
func (n *network) owners(on opNetwork, parallelism int, workers []string) []string {
	owners := make([]string, parallelism)
	var free []int
	for _, g := range on.groups {
		next := 0
		for _, e := range g.direct {
			for range n.g.flow(e.edge) {
				owners[g.tasks[next]] = workers[e.worker]
				next++
			}
		}
		free = append(free, g.tasks[next:]...)
	}
	slices.Sort(free)
	for w, e := range on.spread {
		for range n.g.flow(e) {
			owners[free[0]] = workers[w]
			free = free[1:]
		}
	}
	return owners
}
