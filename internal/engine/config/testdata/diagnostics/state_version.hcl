# state_version: empty, a forbidden character, too long, not a string.
name = "state-version"

stream "IN" {
  subjects = ["in.>", "out.>"]
}

source "in" {
  stream  = "IN"
  subject = "in.>"
}

operator "empty" {
  module        = "o.wasm"
  state_version = ""
  inputs        = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}

operator "space" {
  module        = "o.wasm"
  state_version = "v 2"
  inputs        = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}

operator "long" {
  module        = "o.wasm"
  state_version = "v1234567890123456789012345678901234567890123456789012345678901234"
  inputs        = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}

operator "list" {
  module        = "o.wasm"
  state_version = ["1"]
  inputs        = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}

operator "number" {
  module        = "o.wasm"
  state_version = 2
  inputs        = ["in"]
  key {
    json_field = "id"
  }
  outputs = { out = "out" }
}

sink "out" {
  subject = "out.x"
}
