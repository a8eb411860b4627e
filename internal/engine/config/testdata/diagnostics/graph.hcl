name = "fraud"

stream "PAYMENTS" {
  subjects = ["payments.>"]
}

stream "ALERTS" {
  subjects = ["alerts.>", "wasmstream.x.*.enrich_score.>"]
}

source "payments" {
  stream = "PAYMENTS"
}

operator "enrich" {
  module           = "enrich.wasm"
  inputs           = ["payments", "score.flagged"]
  key {
    json_field = "account"
  }
  internal_outputs = ["out", "side", "out"]
}

operator "score" {
  module           = "score.wasm"
  inputs           = ["enrich.out", "enrich.missing", "ghost.out", "enrich", "enrich."]
  input "enrich.out" {
    key {
      json_field = "customer"
    }
  }
  input "elsewhere" {
    key {
      header = "Customer"
    }
  }
  input "enrich.missing" {
  }
  input "enrich.missing" {
    key {
      json_field = "again"
    }
  }
  key {
    json_field = "account"
  }
  outputs          = { alerts = "alerts" }
  internal_outputs = ["flagged", "alerts"]
}

operator "loop" {
  module  = "loop.wasm"
  inputs  = ["loop.out"]
  key {
    json_field = "id"
  }
  internal_outputs = ["out"]
}

operator "bytoken" {
  module  = "t.wasm"
  inputs  = ["enrich.out"]
  key {
    subject_token = 3
  }
  outputs = { out = "alerts" }
}

operator "payments" {
  module  = "p.wasm"
  inputs  = ["payments"]
  input "payments" {
    key {
      json_field = "id"
    }
  }
  outputs = { out = "alerts" }
}

sink "alerts" {
  subject = "alerts.all"
}

sink "forged" {
  subject = "wasmstream.x.fraud.enrich_score_1564d3cf.0"
}
