name = "streams"

stream "PAY.MENTS" {
  subjects = ["payments.>"]
}

stream "ALL" {
  subjects = [">"]
}

stream "API" {
  subjects = ["$JS.API.>", "$JS.EVENT.>", "a..b", "ok.x", "ok.x"]
}

stream "OVERLAP" {
  subjects = ["payments.in", "other.*"]
}

stream "ORDERS" {
  subjects = ["orders.*"]
}

source "orders" {
  stream  = "ORDERS"
  subject = "orders.eu.x"
}

source "bad-stream" {
  stream  = "a b"
  subject = "orders.>"
}

operator "o" {
  module  = "o.wasm"
  inputs  = ["orders", "bad-stream"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}

sink "out" {
  subject = "other.out"
}
