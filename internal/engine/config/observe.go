package config

import (
	"net"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// Observe configures the HTTP endpoint of a running pipeline: Prometheus metrics (/metrics) and
// health checks (/healthz, /readyz), see docs/metrics.md.
type Observe struct {
	// Listen is the host:port the endpoint listens on; empty means no endpoint. Port 0 takes a
	// free port (the run logs the one it got).
	Listen string
	// Range is the block's position; zero when the file has no observe block.
	Range hcl.Range
}

// Enabled reports whether the pipeline serves metrics and health checks.
func (o Observe) Enabled() bool { return o.Listen != "" }

// decodeObserve reads the observe block. An empty block, or an empty listen, leaves the endpoint
// off: the block can stay in the file while the endpoint is not wanted.
func (d *decoder) decodeObserve(b *hcl.Block) Observe {
	a, _ := d.body(b, observeSchema, "observe")
	o := Observe{Listen: strings.TrimSpace(a.strOr("listen", "")), Range: b.DefRange}
	if o.Listen == "" {
		return o
	}
	host, problem := checkListen(o.Listen)
	switch {
	case problem != "":
		a.errorf("listen", "%q %s; write host:port, e.g. \"127.0.0.1:9464\"", o.Listen, problem)
		o.Listen = ""
	case !isLoopback(host):
		a.warnf("listen", "%q is reachable from other machines: anyone who can reach it reads the pipeline's metrics and health; "+
			"use \"127.0.0.1:%s\" unless a scraper on another machine needs it (and then restrict access with a firewall)",
			o.Listen, portOf(o.Listen))
	}
	return o
}

// checkListen returns the host of a host:port address, or what is wrong with it.
func checkListen(listen string) (host, problem string) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", "is not host:port (" + strings.TrimPrefix(err.Error(), "address "+listen+": ") + ")"
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > maxPort {
		return "", "has no port number from 0 to 65535"
	}
	if strings.ContainsAny(host, " /") {
		return "", "has a host that is neither an IP address nor a host name"
	}
	return host, ""
}

// isLoopback reports whether host only accepts connections from this machine. An empty host
// listens on every interface; a host name other than localhost may resolve to any address.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func portOf(listen string) string {
	_, port, _ := net.SplitHostPort(listen)
	return port
}

// writeObserve prints the observe block; String prints it only when the endpoint is on.
func writeObserve(b *hclwrite.Body, o Observe) {
	b.SetAttributeValue("listen", cty.StringVal(o.Listen))
}
