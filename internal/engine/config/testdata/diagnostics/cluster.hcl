# Every setting of the cluster block wrong at once, a misspelt one, and a second block.
name = "cluster"

server {
  url = "nats://n1:4222,nats://n2:4222,nats://n3:4222"
}

cluster {
  replicas       = 7
  worker_timeout = "500ms"
  lease_ttl      = "2h"
  stabilization  = "-1s"
  lease_tl       = "15s"
}

cluster {
  replicas = 1
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
