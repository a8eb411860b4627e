name = "dead-letters"

# The engine creates WASMSTREAM_DLQ on wasmstream.dlq.> itself: a declared stream may neither take
# its name nor capture a subject that overlaps it.
stream "WASMSTREAM_DLQ" {
  subjects = ["dlq.mine.>"]
}

stream "RISK" {
  subjects = ["risk.>", "wasmstream.dlq.dead-letters.>"]
}

stream "ALL" {
  subjects = ["wasmstream.>", "wasmstream.*.dead-letters.risk", "alerts.*.x"]
}

# Declared streams overlapping each other, with wildcards on both sides.
stream "ALERTS" {
  subjects = ["alerts.eu.>"]
}

source "payments" {
  stream  = "RISK"
  subject = "risk.in"
}

# Dead letters under wasmstream.dlq. (the default here) go to WASMSTREAM_DLQ.
operator "risk" {
  module  = "risk.wasm"
  inputs  = ["payments"]
  key {
    json_field = "account"
  }
  outputs = { out = "totals" }
}

# Routed into a declared stream: stored there.
operator "kept" {
  module  = "risk.wasm"
  inputs  = ["payments"]
  key {
    json_field = "account"
  }
  outputs             = { out = "totals" }
  dead_letter_subject = "risk.dlq.kept"
}

# Routed where no stream captures them: lost.
operator "lost" {
  module  = "risk.wasm"
  inputs  = ["payments"]
  key {
    json_field = "account"
  }
  outputs             = { out = "totals" }
  dead_letter_subject = "nowhere.lost"
}

sink "totals" {
  subject = "risk.totals"
}
