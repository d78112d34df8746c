// Package api holds the Go types of the functions' HTTP contract, generated
// from functions/openapi.yaml (the one source of the contract) by
// oapi-codegen, types only (oapi-codegen.yaml): each request body
// (<Function>JSONBody, or DeadFilter and EndpointID, the bodies several
// functions share) and each answer schema (components.schemas). Never edit
// api.gen.go: change openapi.yaml and run `go generate ./functions/api` (or
// `make generate`); `make test` fails while the two differ
// (.ci/check-generated).
//
// The request types carry the validator/v10 `validate:` rules that
// httpx.DecodeJSON checks, written in the document as
// x-oapi-codegen-extra-tags; uuid and date-time properties of a request
// are plain strings (x-go-type: string), so that a malformed value is a
// field error of the validator, not a JSON type error. The handlers of
// package functions convert the domain's results into the answer types, so
// that a domain type can change without changing the wire, and a change of
// the wire fails the build until the handlers follow.
package api

//go:generate go tool oapi-codegen -config oapi-codegen.yaml -o api.gen.go ../openapi.yaml
