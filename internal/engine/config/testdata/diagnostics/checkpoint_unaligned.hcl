# Out-of-range values, and an alignment_timeout that unaligned mode ignores (a warning).
name = "checkpoint-unaligned"

checkpoint {
  interval          = "5ms"
  timeout           = "-1m"
  min_pause         = 1.5
  mode              = "unaligned"
  alignment_timeout = "30s"
  retain            = 1001
  every             = "5s"
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
