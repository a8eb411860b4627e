# Legal but useless: the checkpoint is aborted before alignment could time out (a warning).
name = "checkpoint-alignment"

checkpoint {
  interval          = "9999999ns"
  timeout           = "1m"
  alignment_timeout = "2m"
  retain            = "three"
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
