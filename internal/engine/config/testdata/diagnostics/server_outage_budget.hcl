name = "server-outage-budget"

server {
  outage_budget = "100ms"
}

stream "IN" {
  subjects = ["in.>"]
}

stream "OUT" {
  subjects = ["out.>"]
}

source "in" {
  stream  = "IN"
  subject = "in.x"
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
