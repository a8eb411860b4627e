package config

import "github.com/hashicorp/hcl/v2"

// The schemas list every attribute and block the file may contain. None is marked Required:
// required settings are checked by the decoder so that the message can say how to fix them.
// Anything not listed is an error from HCL, with a "did you mean" hint when a name is close.

var fileSchema = &hcl.BodySchema{
	Attributes: attributes("name", "data_dir"),
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "server"},
		{Type: "log"},
		{Type: "checkpoint"},
		{Type: "cluster"},
		{Type: "observe"},
		{Type: "exchange"},
		{Type: "stream", LabelNames: []string{"name"}},
		{Type: "source", LabelNames: []string{"name"}},
		{Type: "operator", LabelNames: []string{"name"}},
		{Type: "sink", LabelNames: []string{"name"}},
	},
}

var serverSchema = &hcl.BodySchema{
	Attributes: attributes("url", "context", "credentials", "user", "password", "token", "nkey_seed",
		"jetstream_domain", "jetstream_api_prefix", "inbox_prefix", "embedded_port", "max_payload", "outage_budget"),
	Blocks: []hcl.BlockHeaderSchema{{Type: "tls"}},
}

var logSchema = &hcl.BodySchema{Attributes: attributes("format", "level")}

var checkpointSchema = &hcl.BodySchema{
	Attributes: attributes("interval", "timeout", "min_pause", "mode", "alignment_timeout", "retain"),
}

var clusterSchema = &hcl.BodySchema{
	Attributes: attributes("replicas", "worker_timeout", "lease_ttl", "stabilization"),
}

var observeSchema = &hcl.BodySchema{Attributes: attributes("listen")}

var exchangeSchema = &hcl.BodySchema{Attributes: attributes("duplicate_window")}

var streamSchema = &hcl.BodySchema{Attributes: attributes("subjects", "duplicate_window", "storage", "retention", "replicas")}

var sourceSchema = &hcl.BodySchema{
	Attributes: attributes("stream", "subject", "start_sequence", "max_duplicate_delay", "route"),
	Blocks:     []hcl.BlockHeaderSchema{{Type: "event_id"}},
}

var operatorSchema = &hcl.BodySchema{
	Attributes: attributes("module", "state_version", "inputs", "parallelism", "max_parallelism",
		"config", "config_file", "outputs", "internal_outputs", "dead_letter_subject"),
	Blocks: []hcl.BlockHeaderSchema{{Type: "key"}, {Type: "input", LabelNames: []string{"name"}}, {Type: "limits"},
		{Type: "state", LabelNames: []string{"name"}}},
}

var inputSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "key"}}}

var keySchema = &hcl.BodySchema{Attributes: attributes("json_field", "subject_token", "header")}

var limitsSchema = &hcl.BodySchema{
	Attributes: attributes("memory_pages", "batch_timeout", "batch_size", "max_value_bytes",
		"max_emits_per_record", "max_table_elements"),
}

var sinkSchema = &hcl.BodySchema{Attributes: attributes("subject", "mode", "batch_size")}

func attributes(names ...string) []hcl.AttributeSchema {
	out := make([]hcl.AttributeSchema, len(names))
	for i, n := range names {
		out[i] = hcl.AttributeSchema{Name: n}
	}
	return out
}
