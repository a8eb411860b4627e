package testutil

import (
	"errors"
	"net"
	"net/url"
	"strconv"
	"sync"
	"testing"
)

// FreezeProxy forwards TCP connections to a server. Frozen, it
// forwards nothing in either direction and keeps every socket open, as a
// server that hangs (SIGSTOP, a machine gone without a FIN) or a network
// partition does: only the client's pings can notice. Thawed, it closes
// the connections it froze (their state is lost, as after a real hang)
// and forwards new ones again. Healed, it delivers what it held, in order,
// and then a close either side made meanwhile, as a partition that ends
// does: TCP retransmits the bytes a cut-off client sent, late.
type FreezeProxy struct {
	// URL is the proxy's NATS URL.
	URL    string
	ln     net.Listener
	target string

	mu     sync.Mutex
	frozen bool
	thawed chan struct{} // closed by Thaw or Heal
	lost   *bool         // set by Thaw before it closes thawed: what was held is dropped
	conns  []net.Conn    // both ends of every open pair
}

// StartFreezeProxy listens on a random port of 127.0.0.1 in front of the
// server on port of 127.0.0.1; the test's cleanup closes it.
func StartFreezeProxy(t testing.TB, port int) *FreezeProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &FreezeProxy{ln: ln, target: (&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}).String(),
		URL: "nats://" + ln.Addr().String()}
	go p.accept()
	t.Cleanup(func() {
		_ = ln.Close()
		p.closeAll()
	})
	return p
}

// StartFreezeProxyFor is StartFreezeProxy in front of the server whose
// client URL (nats://127.0.0.1:PORT) is clientURL.
func StartFreezeProxyFor(t testing.TB, clientURL string) *FreezeProxy {
	t.Helper()
	u, err := url.Parse(clientURL)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatalf("client URL %s: %v", clientURL, err)
	}
	return StartFreezeProxy(t, port)
}

func (p *FreezeProxy) accept() {
	for {
		client, err := p.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = client.Close() // the server is down: the client retries
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, client, server)
		p.mu.Unlock()
		go p.pipe(server, client)
		go p.pipe(client, server)
	}
}

// pipe copies src to dst; while frozen it holds what it read.
func (p *FreezeProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.waitThawed() {
				return // thaw closed this pair; what it held is lost
			}
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			_ = dst.Close()
			return
		}
	}
}

// waitThawed returns true at once unless frozen; frozen, it waits for the
// end of the freeze and reports whether what it holds is to be delivered
// (Heal) rather than dropped (Thaw).
func (p *FreezeProxy) waitThawed() bool {
	p.mu.Lock()
	frozen, thawed, lost := p.frozen, p.thawed, p.lost
	p.mu.Unlock()
	if !frozen {
		return true
	}
	<-thawed
	p.mu.Lock()
	defer p.mu.Unlock()
	return !*lost
}

// Freeze stops all forwarding, of open connections and of new ones.
func (p *FreezeProxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.frozen, p.thawed, p.lost = true, make(chan struct{}), new(bool)
}

// Thaw closes every connection made before or during the freeze and lets
// new ones through.
func (p *FreezeProxy) Thaw() {
	// Close first, still frozen: a pipe that read a chunk during the freeze
	// but had not started waiting yet would otherwise find the proxy thawed
	// and forward it before the close.
	p.closeAll()
	p.mu.Lock()
	p.frozen, *p.lost = false, true
	close(p.thawed)
	p.mu.Unlock()
}

// Heal ends the freeze as a healed partition: every connection delivers
// what it held, and forwarding goes on.
func (p *FreezeProxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.frozen = false
	close(p.thawed)
}

func (p *FreezeProxy) closeAll() {
	p.mu.Lock()
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}
