# Legal but suspicious: the file loads, with warnings.
name = "warnings"

stream "IN" {
  subjects = ["in.>"]
}

source "in" {
  stream = "IN"
}

source "spare" {
  stream  = "IN"
  subject = "in.spare"
}

operator "o" {
  module  = "o.wasm"
  inputs  = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "loop", lost = "lost" }
}

sink "loop" {
  subject = "in.again"
}

sink "lost" {
  subject = "nowhere.x"
}

sink "unused" {
  subject = "in.unused"
}
