# A pipeline shared by `wasmstream worker` processes: every cluster setting written.
name = "cluster"

server {
  url = "nats://n1:4222,nats://n2:4222,nats://n3:4222"
}

cluster {
  replicas       = 5
  worker_timeout = "3s"
  lease_ttl      = "20s"
  stabilization  = "0s"
}

stream "IN" {
  subjects = ["in.>", "out.>"]
  replicas = 3
}

source "in" {
  stream  = "IN"
  subject = "in.>"
}

operator "count" {
  module      = "count.wasm"
  inputs      = ["in"]
  parallelism = 6
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}

sink "out" {
  subject = "out.counts"
}
