# Every setting of the checkpoint block wrong at once, and a second block.
name = "checkpoint"

checkpoint {
  interval          = "-1s"
  timeout           = "0s"
  min_pause         = "-2s"
  mode              = "eventually"
  alignment_timeout = "-3s"
  retain            = 0
}

checkpoint {
  retain = 5
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
