name = "duplicates"

log {
  level = "debug"
}

log {
  level = "info"
}

stream "IN" {
  subjects = ["in.>"]
}

stream "IN" {
  subjects = ["other.>"]
}

stream {
  subjects = ["x.>"]
}

source "in" {
  stream  = "IN"
  subject = "in.a"
}

source "in" {
  stream = "IN"
}

source "bad name" {
  stream  = "IN"
  subject = "in.b"
}

operator "o" {
  module  = "o.wasm"
  inputs  = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}

operator "o" {
  module  = "o.wasm"
  inputs  = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}

sink "out" "extra" {
  subject = "in.out"
}

sink "out" {
  subject = "in.out"
}

sink "out" {
  subject = "in.out2"
}
