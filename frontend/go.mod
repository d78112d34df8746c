// The web client is not Go. This file makes frontend/ a module of its own,
// so that the lexora module's ./... (go vet, go test, golangci-lint) never
// reaches into node_modules, where some npm packages ship Go sources
// (flatted, a dependency of ESLint).
module github.com/lexora-app/lexora/frontend

go 1.26
