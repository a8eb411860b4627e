# file(), env() and config_file, all read at load time.
name = "functions"

server {
  url      = "nats://10.0.0.1:4222,nats://10.0.0.2:4222"
  user     = "risk"
  password = env("WASMSTREAM_TEST_PASSWORD")
}

source "payments" {
  stream = "PAYMENTS" # exists on the server: not declared here
}

operator "from-file" {
  module  = "/opt/operators/risk.wasm"
  inputs  = ["payments"]
  key {
    header = "Account"
  }
  config  = file("risk.json")
  outputs = { out = "totals" }
}

operator "from-config-file" {
  module      = "risk.wasm"
  inputs      = ["payments"]
  key {
    json_field = "account"
  }
  config_file = "risk.json"
  outputs     = { out = "totals" }
}

sink "totals" {
  subject = "risk.totals"
}
