package functions_test

import (
	"go/ast"
	"go/types"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/go/packages"
)

const module = "github.com/lexora-app/lexora"

// answerSinks are the calls of package functions that put a value on the
// wire, each with the index of its argument that gives the answer: the
// answer callback of write, read, post and postUpTo (its values are what the
// callback returns), or the value written by httpx.WriteJSON.
var answerSinks = map[string]int{
	module + "/functions.write":              6,
	module + "/functions.read":               2,
	module + "/functions.post":               6,
	module + "/functions.postUpTo":           7,
	module + "/pkg/platform/httpx.WriteJSON": 2,
}

// TestOnlyContractTypesGoOnTheWire holds the rule that functions/openapi.yaml
// is the one home of the HTTP contract: every answer a handler writes is a
// type of package api (generated from the document), or a local type that
// only embeds one to choose its status (assigned, invitation). A domain type
// answered as it is would put its Go fields on the wire, unseen by the
// document and by the client's generated types. The check reads the
// handlers' source with their types: each argument of answerSinks, and each
// value an answer callback returns.
func TestOnlyContractTypesGoOnTheWire(t *testing.T) {
	pkg := load(t, packages.NeedName|packages.NeedTypes|packages.NeedSyntax|packages.NeedTypesInfo, module+"/functions")[0]
	answers := 0
	for _, file := range pkg.Syntax {
		for _, decl := range file.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && isSink(pkg.TypesInfo, fd) {
				continue // the plumbing passes its callers' answers on
			}
			checkAnswers(t, pkg, decl, &answers)
		}
	}
	require.Greater(t, answers, 20, "the check found too few answers to be reading the handlers")
}

// checkAnswers checks each answer given to an answerSinks call in decl,
// counting them in answers.
func checkAnswers(t *testing.T, pkg *packages.Package, decl ast.Decl, answers *int) {
	ast.Inspect(decl, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		arg, ok := answerSinks[calledName(pkg.TypesInfo, call)]
		if !ok || arg >= len(call.Args) {
			return true
		}
		for _, v := range answerValues(t, pkg, call.Args[arg]) {
			*answers++
			typ := pkg.TypesInfo.TypeOf(v)
			assert.Truef(t, isContractType(typ), "%s: %s answers a %s; answer a type of package api (functions/openapi.yaml) and convert in answers.go",
				pkg.Fset.Position(v.Pos()), calledName(pkg.TypesInfo, call), typ)
		}
		return true
	})
}

// isSink reports whether fd declares one of answerSinks.
func isSink(info *types.Info, fd *ast.FuncDecl) bool {
	fn, ok := info.Defs[fd.Name].(*types.Func)
	if !ok {
		return false
	}
	_, sink := answerSinks[fn.Pkg().Path()+"."+fn.Name()]
	return sink
}

// TestDomainTypesCarryNoJSONTags holds the other half of the rule: the
// domain packages' types carry no json tags, since the HTTP layer converts
// them (a tag there would be a second, unchecked wire format). The packages
// and types whose JSON is a format of its own are named with the reason.
func TestDomainTypesCarryNoJSONTags(t *testing.T) {
	formats := map[string]string{
		"pkg/events":                    "event payloads, stored in the outbox for days: pinned by the goldens",
		"pkg/outbox":                    "outboxctl's JSON output and the drain's log line",
		"pkg/webhooks.Message":          "the body a teacher's endpoint receives",
		"pkg/platform/...":              "problem documents, tokens: formats of their own",
		"pkg/testkit/...":               "clients of test services (mailpit's API)",
		"pkg/learning/optimizer/oracle": "the oracle's protocol with fsrs-rs",
	}
	pkgs := load(t, packages.NeedName|packages.NeedTypes, module+"/pkg/...")
	checked := 0
	for _, p := range pkgs {
		path := strings.TrimPrefix(p.PkgPath, module+"/")
		if exempt(path, formats) {
			continue
		}
		checked++
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || exempt(path+"."+name, formats) {
				continue
			}
			st, ok := tn.Type().Underlying().(*types.Struct)
			if !ok {
				continue
			}
			for i := range st.NumFields() {
				_, tagged := reflect.StructTag(st.Tag(i)).Lookup("json")
				assert.Falsef(t, tagged, "%s.%s.%s has a json tag: domain types are converted to package api's in functions/answers.go",
					p.PkgPath, name, st.Field(i).Name())
			}
		}
	}
	require.GreaterOrEqual(t, checked, 8, "too few domain packages checked")
}

func load(t *testing.T, mode packages.LoadMode, patterns ...string) []*packages.Package {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Mode: mode}, patterns...)
	require.NoError(t, err)
	require.NotEmpty(t, pkgs)
	for _, p := range pkgs {
		require.Emptyf(t, p.Errors, "loading %s", p.PkgPath)
	}
	return pkgs
}

// exempt reports whether name (a package path, or "<path>.<Type>") is one
// of formats' keys, or under a key ending in "/...".
func exempt(name string, formats map[string]string) bool {
	for k := range formats {
		if name == k || (strings.HasSuffix(k, "/...") && strings.HasPrefix(name+"/", strings.TrimSuffix(k, "..."))) {
			return true
		}
	}
	return false
}

// calledName is the package-qualified name of the function or method call
// calls ("<pkg path>.<name>"), or "" for a call of a function value.
func calledName(info *types.Info, call *ast.CallExpr) string {
	fun := ast.Unparen(call.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return ""
	}
	fn, ok := info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return ""
	}
	return fn.Pkg().Path() + "." + fn.Name()
}

// answerValues are the expressions that arg puts on the wire: arg itself,
// or, for an answer callback (a function literal), the first value of each
// of its return statements that is not nil. A callback that is not a
// literal cannot be read, so it fails the test.
func answerValues(t *testing.T, pkg *packages.Package, arg ast.Expr) []ast.Expr {
	if _, isFunc := pkg.TypesInfo.TypeOf(arg).Underlying().(*types.Signature); !isFunc {
		return []ast.Expr{arg}
	}
	lit, ok := ast.Unparen(arg).(*ast.FuncLit)
	require.Truef(t, ok, "%s: pass the answer callback as a function literal, so that its answers can be checked",
		pkg.Fset.Position(arg.Pos()))
	var out []ast.Expr
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) > 0 && !isNil(pkg.TypesInfo, n.Results[0]) {
				out = append(out, n.Results[0])
			}
		}
		return true
	})
	return out
}

func isNil(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

// isContractType reports whether typ is a type of package api, a slice or
// pointer of one, or a local named struct whose only field embeds one.
func isContractType(typ types.Type) bool {
	switch u := types.Unalias(typ).(type) {
	case *types.Pointer:
		return isContractType(u.Elem())
	case *types.Slice:
		return isContractType(u.Elem())
	case *types.Named:
		switch u.Obj().Pkg().Path() {
		case module + "/functions/api":
			return true
		case module + "/functions":
			st, ok := u.Underlying().(*types.Struct)
			return ok && st.NumFields() == 1 && st.Field(0).Embedded() && isContractType(st.Field(0).Type())
		}
	}
	return false
}
