package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// writeServerConnection prints the nkey seed, the JetStream address, the inbox prefix and the
// tls block of a server at url. A context is printed resolved, as the settings it supplied,
// and named in a comment only: the record beside a checkpoint then says what was used even
// after the context file changes, and reads back on a machine without it.
func writeServerConnection(b *hclwrite.Body, s Server) {
	setIf(b, "nkey_seed", s.NkeySeed)
	setIf(b, "jetstream_domain", s.JetStreamDomain)
	setIf(b, "jetstream_api_prefix", s.JetStreamAPIPrefix)
	setIf(b, "inbox_prefix", s.InboxPrefix)
	if s.TLS != (TLS{}) {
		t := b.AppendNewBlock("tls", nil).Body()
		setIf(t, "ca_file", s.TLS.CAFile)
		setIf(t, "cert_file", s.TLS.CertFile)
		setIf(t, "key_file", s.TLS.KeyFile)
	}
	if s.Context != "" {
		b.AppendUnstructuredTokens(hclwrite.Tokens{{
			Type:  hclsyntax.TokenComment,
			Bytes: fmt.Appendf(nil, "# completed from NATS context %q (%s); the block's own settings won\n", s.Context, s.ContextFile),
		}})
	}
}
