name = "key"

stream "IN" {
  subjects = ["in.>"]
}

stream "OUT" {
  subjects = ["out.>"]
}

source "in" {
  stream = "IN"
}

operator "none" {
  module  = "none.wasm"
  inputs  = ["in"]
  key {
  }
  outputs = { out = "out" }
}

operator "several" {
  module  = "several.wasm"
  inputs  = ["in"]
  key {
    json_field    = "id"
    subject_token = 2
    header        = "Id"
  }
  outputs = { out = "out" }
}

operator "twice" {
  module  = "twice.wasm"
  inputs  = ["in"]
  key {
    json_field = "id"
  }
  key {
    header = "Id"
  }
  limits {
  }
  limits {
  }
  outputs = { out = "out" }
}

operator "missing" {
  module  = "missing.wasm"
  inputs  = ["in"]
  outputs = { out = "out" }
}

sink "out" {
  subject = "out.x"
}
