# The lease does not outlast the heartbeat timeout: the error is at lease_ttl, which is written.
name = "cluster-lease"

server {
  url = "nats://n1:4222"
}

cluster {
  worker_timeout = "10s"
  lease_ttl      = "10s"
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
