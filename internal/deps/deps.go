package main

import (
	_ "github.com/cockroachdb/pebble/v2"
	_ "github.com/hashicorp/go-hclog"
	_ "github.com/hashicorp/hcl/v2"
	_ "github.com/hashicorp/hcl/v2/gohcl"
	_ "github.com/hashicorp/hcl/v2/hclsyntax"
	_ "github.com/nats-io/nats-server/v2/server"
	_ "github.com/nats-io/nats.go"
	_ "github.com/nats-io/nats.go/jetstream"
	_ "github.com/spf13/cobra"
	_ "github.com/tetratelabs/wazero"
)

func main() {}
