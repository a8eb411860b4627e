package engine

import (
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/wasmstream/wasmstream/internal/engine/auth"
	"github.com/wasmstream/wasmstream/internal/engine/config"
	"github.com/wasmstream/wasmstream/natsio"
)

// generatedAuth reports whether cfg's server is an embedded one, secured
// by the nkey users of its data dir (package auth). The config's auth
// settings only apply to a server at url (config warns when they are set
// without one).
func generatedAuth(cfg *config.Pipeline) bool { return cfg.Server.URL == "" }

// ownerOptions are the options of the process that starts cfg's embedded
// server (run, or a client before the first run): it creates the seeds
// the first time, lets only the data dir's users in and connects as
// control.
func ownerOptions(cfg *config.Pipeline, logger hclog.Logger) (natsio.ServerOptions, error) {
	opts := serverOptions(cfg, logger)
	if !generatedAuth(cfg) {
		return opts, nil
	}
	if err := auth.Ensure(cfg.DataDir); err != nil {
		return opts, err
	}
	users, err := embeddedUsers(cfg)
	if err != nil {
		return opts, err
	}
	opts.EmbeddedUsers = users
	opts.NkeySeedFile = auth.SeedFile(cfg.DataDir, auth.Control)
	return opts, nil
}

// clientOptions are the options of a client of cfg's running embedded
// server connecting as role.
func clientOptions(cfg *config.Pipeline, logger hclog.Logger, role auth.Role) (natsio.ServerOptions, error) {
	opts := serverOptions(cfg, logger)
	if !generatedAuth(cfg) {
		return opts, nil
	}
	if err := auth.CheckSeed(cfg.DataDir, role); err != nil {
		return opts, fmt.Errorf("pipeline %q: %w", cfg.Name, err)
	}
	opts.NkeySeedFile = auth.SeedFile(cfg.DataDir, role)
	if role == auth.Data {
		opts.InboxPrefix = DataInboxPrefix
	}
	return opts, nil
}

// DataInboxPrefix is the data user's inbox prefix (nats --inbox-prefix):
// the only subjects it may subscribe to, so that it cannot read the
// replies the control user gets on "_INBOX.>".
const DataInboxPrefix = "_INBOX_data"

// embeddedUsers are the embedded server's two users: control with every
// right, data with dataPublish and the read-only JetStream API.
func embeddedUsers(cfg *config.Pipeline) ([]natsio.EmbeddedUser, error) {
	control, err := auth.PublicKey(cfg.DataDir, auth.Control)
	if err != nil {
		return nil, err
	}
	data, err := auth.PublicKey(cfg.DataDir, auth.Data)
	if err != nil {
		return nil, err
	}
	return []natsio.EmbeddedUser{
		{PublicKey: control},
		{
			PublicKey: data, Publish: append(sourceSubjects(cfg), readOnlyJetStreamAPI...),
			DenyPublish: consumersOfAcknowledgedStreams(cfg), Subscribe: []string{DataInboxPrefix + ".>"},
		},
	}, nil
}

// readOnlyJetStreamAPI is what a data client needs of the JetStream API to
// publish with acknowledgements and read a stream through an ordered
// consumer (wasmstream publish and read, nats stream view). It leaves out
// everything that changes a stream (create, update, delete, purge,
// message delete), the key-value and object stores' writes (the module
// registry) and the listing of consumers, whose names would let a client
// steal or delete the pipeline's.
var readOnlyJetStreamAPI = []string{
	"$JS.API.INFO",
	"$JS.API.STREAM.NAMES",
	"$JS.API.STREAM.INFO.*",
	"$JS.API.STREAM.MSG.GET.*",
	"$JS.API.DIRECT.GET.>",
	"$JS.API.CONSUMER.CREATE.>",
	"$JS.API.CONSUMER.INFO.>",
	"$JS.API.CONSUMER.DELETE.>",
	"$JS.API.CONSUMER.MSG.NEXT.>",
}

// consumersOfAcknowledgedStreams is the consumer API of every declared
// workqueue or interest stream. On those a consumer is not a reader: its
// deliveries and acknowledgements remove messages, and its filter can
// block the pipeline's own durable consumer. So the data user gets none.
func consumersOfAcknowledgedStreams(cfg *config.Pipeline) []string {
	var out []string
	for _, st := range cfg.Streams {
		if st.Retention == "workqueue" || st.Retention == "interest" {
			out = append(out,
				"$JS.API.CONSUMER.*."+st.Name, "$JS.API.CONSUMER.*."+st.Name+".>",
				"$JS.API.CONSUMER.MSG.NEXT."+st.Name+".>", "$JS.API.CONSUMER.DURABLE.CREATE."+st.Name+".>")
		}
	}
	return out
}

// sourceSubjects are the subjects a data client may publish to: each
// source's filter, or all its declared stream's subjects.
func sourceSubjects(cfg *config.Pipeline) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, s := range cfg.Sources {
		if s.Subject != "" {
			add(s.Subject)
			continue
		}
		for _, st := range cfg.Streams {
			if st.Name == s.Stream {
				for _, subj := range st.Subjects {
					add(subj)
				}
			}
		}
	}
	return out
}

// remoteOptions copies how to reach a server at url (authentication, TLS, the JetStream
// address and the inbox prefix) from the server block, a NATS context already applied to it.
func remoteOptions(opts *natsio.ServerOptions, s config.Server) {
	opts.CredentialsFile, opts.User, opts.Password, opts.Token = s.Credentials, s.User, s.Password, s.Token
	opts.NkeySeedFile, opts.InboxPrefix = s.NkeySeed, s.InboxPrefix
	opts.TLSCAFile, opts.TLSCertFile, opts.TLSKeyFile = s.TLS.CAFile, s.TLS.CertFile, s.TLS.KeyFile
	opts.JetStreamDomain, opts.JetStreamAPIPrefix = s.JetStreamDomain, s.JetStreamAPIPrefix
}
