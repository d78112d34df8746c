package functions

import _ "embed"

// OpenAPI is the OpenAPI 3.1 document of every function (openapi.yaml),
// kept true by a test that validates real responses against it.
//
//go:embed openapi.yaml
var OpenAPI []byte
