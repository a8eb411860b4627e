# Authentication without url is ignored: warnings only, the file loads.
name = "embedded-auth"

server {
  user     = "risk"
  password = "p"
}

stream "IN" {
  subjects = ["in.>"]
}

stream "OUT" {
  subjects = ["out.>"]
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
