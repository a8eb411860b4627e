# A worker_timeout not shorter than the default lease: the error is at worker_timeout, since
# lease_ttl is not written.
name = "cluster-worker-timeout"

server {
  url = "nats://n1:4222"
}

cluster {
  worker_timeout = "1m"
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
