# Number literals so large that printing them would take hours are refused before evaluation.
name = "numbers"

operator "o" {
  module          = "o.wasm"
  parallelism     = 1e999999
  max_parallelism = 1e-300
  config          = jsonencode({ big = 1e78 })
}
