name = "server-auth"

server {
  url           = "nats://host:4222"
  password      = "p"
  embedded_port = 4223
}

server {
  user = "risk"
}

source "in" {
  stream = "IN"
}

operator "o" {
  module  = "o.wasm"
  inputs  = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}

sink "out" {
  subject = "out.x"
}
