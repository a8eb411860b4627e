name = "server-max-payload-url"

server {
  url         = "nats://host:4222"
  max_payload = 8388608
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
