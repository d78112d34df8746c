package terraform_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/functions"
	"github.com/lexora-app/lexora/pkg/account"
)

// TestOperatorFunctionsAreTheOperatorOnlyOnes checks locals.operator_functions
// in functions.tf.json (the one list that keeps a function off the public invoker and
// the load balancer) against the roles each function requires in the code:
// the string literals it, or a Service method it calls, passes to
// Service.caller in package functions. A function is operator-only when
// "operator" is the only role it admits. Dropping such a function from the
// list (which would make it public) fails here, as does listing one that
// others may call.
func TestOperatorFunctionsAreTheOperatorOnlyOnes(t *testing.T) {
	t.Parallel()
	tf := readFunctionsTF(t)

	roles := functionRoles(t, "../functions")
	var operatorOnly []string
	for name := range functions.Functions {
		require.Contains(t, roles, name, "%s is not a method of Service in package functions", name)
		if slices.Equal(roles[name], []string{"operator"}) {
			operatorOnly = append(operatorOnly, name)
		}
	}
	slices.Sort(operatorOnly)
	require.NotEmpty(t, operatorOnly, "the operator functions (functions/operator.go) require the operator role")
	require.Equal(t, operatorOnly, tf.OperatorFunctions, "terraform/functions.tf.json locals.operator_functions must be exactly the functions that admit only the operator role, sorted")
}

// functionRoles parses the non-test Go files of dir and returns, per method
// of Service, the sorted roles passed to a role gate by the method or by the
// Service methods it calls (transitively); nil means any signed-in user. A
// role gate is a Service method whose last parameter is ...account.Role
// (Service.caller, and helpers such as Service.list that pass their roles
// on to it): the arguments in that position are the roles.
func functionRoles(t *testing.T, dir string) map[string][]string {
	t.Helper()
	methods := serviceMethods(t, dir)
	gates := map[string]int{}
	for name, fn := range methods {
		if at, ok := roleParam(fn); ok {
			gates[name] = at
		}
	}
	require.Contains(t, gates, "caller", "Service.caller takes ...account.Role last")
	direct := map[string]map[string]bool{}
	calls := map[string][]string{}
	for name, fn := range methods {
		recv := fn.Recv.List[0].Names[0].Name
		direct[name] = map[string]bool{}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); !ok || id.Name != recv {
				return true
			}
			at, gate := gates[sel.Sel.Name]
			if !gate {
				calls[name] = append(calls[name], sel.Sel.Name)
				return true
			}
			for _, arg := range call.Args[min(at, len(call.Args)):] {
				if _, forwards := gates[name]; forwards && call.Ellipsis.IsValid() {
					continue // a gate passing its own roles on
				}
				role, ok := roleArg(arg)
				require.True(t, ok, "%s: the roles given to Service.%s must be account.Learner, account.Teacher or account.Operator for this test to read them", name, sel.Sel.Name)
				direct[name][role] = true
			}
			return true
		})
	}
	roles := map[string][]string{}
	for name := range direct {
		all, seen, todo := map[string]bool{}, map[string]bool{name: true}, []string{name}
		for len(todo) > 0 {
			m := todo[0]
			todo = todo[1:]
			maps.Copy(all, direct[m])
			for _, c := range calls[m] {
				if _, ok := direct[c]; ok && !seen[c] {
					seen[c] = true
					todo = append(todo, c)
				}
			}
		}
		roles[name] = slices.Sorted(maps.Keys(all))
	}
	return roles
}

// serviceMethods parses the non-test Go files of dir and returns the
// methods of *Service with a named receiver and a body, by name.
func serviceMethods(t *testing.T, dir string) map[string]*ast.FuncDecl {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	fset := token.NewFileSet()
	methods := map[string]*ast.FuncDecl{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, dir+"/"+e.Name(), nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 || fn.Body == nil || len(fn.Recv.List[0].Names) != 1 {
				continue
			}
			if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "Service" {
					methods[fn.Name.Name] = fn
				}
			}
		}
	}
	return methods
}

// roleParam reports whether fn's last parameter is ...account.Role, and
// how many parameters come before it.
func roleParam(fn *ast.FuncDecl) (int, bool) {
	params := fn.Type.Params.List
	if len(params) == 0 {
		return 0, false
	}
	last, ok := params[len(params)-1].Type.(*ast.Ellipsis)
	if !ok {
		return 0, false
	}
	sel, ok := last.Elt.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Role" {
		return 0, false
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "account" {
		return 0, false
	}
	before := 0
	for _, p := range params[:len(params)-1] {
		before += max(len(p.Names), 1)
	}
	return before, true
}

// roleArg reads a role argument of Service.caller, account.<Role>, as the
// role's value.
func roleArg(arg ast.Expr) (string, bool) {
	sel, ok := arg.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "account" {
		return "", false
	}
	role, ok := map[string]account.Role{"Learner": account.Learner, "Teacher": account.Teacher, "Operator": account.Operator}[sel.Sel.Name]
	return string(role), ok
}
