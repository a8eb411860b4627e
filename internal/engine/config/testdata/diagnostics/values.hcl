name     = "Payment Risk"
data_dir = ""

log {
  format = "xml"
  level  = "verbose"
}

stream "IN" {
  subjects         = ["in.>", "out.>", "dlq.>"]
  duplicate_window = "2 minutes"
  storage          = "disk"
}

source "in" {
  stream         = "IN"
  start_sequence = 0
}

operator "risk" {
  module          = ""
  inputs          = []
  parallelism     = 1.5
  max_parallelism = 0
  config          = { dedup = true }
  config_file     = "missing.json"
  outputs         = {}
  key {
    json_field = "account..id"
  }
  dead_letter_subject = "dlq.*"
  limits {
    memory_pages         = 70000
    batch_timeout        = "0s"
    batch_size           = "many"
    max_value_bytes      = -1
    max_emits_per_record = 1e9
  }
}

operator "over" {
  module          = "over.wasm"
  inputs          = "in"
  parallelism     = 300
  max_parallelism = 256
  outputs         = ["out"]
  key {
    header = "Account Id"
  }
  limits {
    memory_pages    = 2
    max_value_bytes = 200000
  }
}

operator "small" {
  module  = "small.wasm"
  inputs  = ["in", null]
  key {
    subject_token = 0
  }
  outputs = { out = "out", "" = "out" }
  limits {
    memory_pages = 8
  }
}

sink "out" {
  subject = "out.*"
  mode    = "idempotent"
}

sink "exact" {
  subject = "out. x"
  mode    = "exactly_once"
}
