name = "functions"

server {
  url      = "nats://host:4222"
  user     = "risk"
  password = env("WASMSTREAM_TEST_UNSET_VARIABLE")
}

source "in" {
  stream = "IN"
}

operator "a" {
  module  = "a.wasm"
  inputs  = [in]
  key {
    json_field = "id"
  }
  config  = file("no-such-file.json")
  outputs = { out = "out" }
}

operator "b" {
  module  = "b.wasm"
  inputs  = ["in"]
  key {
    json_field = "id"
  }
  config  = file(".")
  outputs = { out = "out" }
}

operator "c" {
  module  = "c.wasm"
  inputs  = ["in"]
  key {
    json_field = "id"
  }
  config  = yamlencode({})
  outputs = { out = "out" }
}

sink "out" {
  subject = "out.x"
}
