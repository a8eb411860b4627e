# Only what is required: everything else takes its default.
name = "minimal"

stream "IN" {
  subjects = ["in.>"]
}

stream "COUNTS" {
  subjects = ["counts.>"]
}

source "in" {
  stream = "IN"
}

operator "count" {
  module = "count.wasm"
  inputs = ["in"]
  key {
    subject_token = 2
  }
  outputs = { out = "counts" }
}

sink "counts" {
  subject = "counts.out"
}
