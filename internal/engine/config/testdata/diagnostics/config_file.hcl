name = "config-file"

stream "IN" {
  subjects = ["in.>"]
}

stream "OUT" {
  subjects = ["out.>"]
}

source "in" {
  stream = "IN"
}

operator "missing" {
  module      = "missing.wasm"
  inputs      = ["in"]
  key {
    json_field = "id"
  }
  config_file = "missing.json"
  outputs     = { out = "out" }
}

operator "directory" {
  module      = "directory.wasm"
  inputs      = ["in"]
  key {
    json_field = "id"
  }
  config_file = "."
  outputs     = { out = "out" }
}

sink "out" {
  subject = "out.x"
}
