name = "broken"
name = "again"

operator "risk" {
  module = "risk.wasm"
  inputs = ["payments"
}
