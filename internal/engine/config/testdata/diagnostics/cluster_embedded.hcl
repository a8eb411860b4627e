# A cluster block with the embedded server (a server block without url).
name = "cluster-embedded"

cluster {
  lease_ttl = "30s"
}

server {
  embedded_port = 14222
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
