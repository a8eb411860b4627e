# Legal, but a leader election can outlast the lease: a warning.
name = "cluster-short-lease"

server {
  url = "nats://n1:4222"
}

cluster {
  worker_timeout = "2s"
  lease_ttl      = "6s"
}

stream "IN" {
  subjects = ["in.>", "out.>"]
}

source "in" {
  stream  = "IN"
  subject = "in.>"
}

operator "o" {
  module = "o.wasm"
  inputs = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}

sink "out" {
  subject = "out.x"
}
