package testutil

import (
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sink accepts one connection and sends everything it reads to got; got
// is closed at the connection's end.
func sink(t *testing.T) (port int, got chan []byte) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	got = make(chan []byte, 16)
	go func() {
		defer close(got)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		got <- b
	}()
	return ln.Addr().(*net.TCPAddr).Port, got
}

func dialProxy(t *testing.T, p *FreezeProxy) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "nats://"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// received waits for what the sink read before its connection ended.
func received(t *testing.T, got chan []byte) string {
	t.Helper()
	select {
	case b := <-got:
		return string(b)
	case <-time.After(30 * time.Second):
		t.Fatal("the connection through the proxy did not end within 30 s")
		return ""
	}
}

// TestFreezeProxyHealDeliversWhatItHeld: bytes a client sends while the
// proxy is frozen, and its close, reach the server once the proxy heals,
// as after a partition; Thaw drops them, as after a hang.
func TestFreezeProxyHealDeliversWhatItHeld(t *testing.T) {
	for _, heal := range []bool{true, false} {
		t.Run("heal="+strconv.FormatBool(heal), func(t *testing.T) {
			port, got := sink(t)
			p := StartFreezeProxy(t, port)
			c := dialProxy(t, p)
			if _, err := c.Write([]byte("before ")); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond) // forwarded before the freeze
			p.Freeze()
			if _, err := c.Write([]byte("during")); err != nil {
				t.Fatal(err)
			}
			_ = c.Close()
			if heal {
				p.Heal()
			} else {
				p.Thaw()
			}
			want := "before during"
			if !heal {
				want = "before "
			}
			if b := received(t, got); b != want {
				t.Errorf("the server read %q, want %q", b, want)
			}
		})
	}
}
