nme  = "typo"
name = "unknown"

stream "IN" {
  subjects = ["in.>"]
}

stream "OUT" {
  subjects = ["out.>"]
  storag   = "file"
}

source "in" {
  stream = "IN"
  filter = "in.x"
}

operator "risk" {
  module      = "risk.wasm"
  inputs      = ["in"]
  paralellism = 2
  key {
    json_feild = "account"
  }
  limit {
    batch_size = 10
  }
  outputs = { out = "out" }
}

sinks "out" {
  subject = "out.x"
}

sink "out" {
  subject = "out.x"
  key     = "x"
}
