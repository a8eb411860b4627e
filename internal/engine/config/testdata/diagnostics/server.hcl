name = "server"

server {
  url         = "http://user:hunter2@host:4222"
  credentials = "risk.creds"
  user        = "risk"
  token       = "abc"
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
