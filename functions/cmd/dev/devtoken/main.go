// Command devtoken mints a development ID token, signed by the development
// issuer's key (pkg/platform/auth), for calling the functions locally:
//
//	curl -H "Authorization: Bearer $(bin/devtoken -sub 00000000-0000-4000-8000-00000000000a)" ...
//
// Seeded users' subjects are their ids. A user created by enrolment signs in
// the first time with -email (verified) and any -sub, which links the
// account. An unknown -sub with an -email without an account is a newcomer,
// who becomes a teacher (CreateClass) or a learner (EnrollLearner with a
// join code); -name is the token's name claim, their account's default name. Only a server started with AUTH_DEV=true accepts these tokens.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/lexora-app/lexora/pkg/platform/auth"
)

func main() {
	sub := flag.String("sub", "", "the token's subject: a seeded user's id, or a new provider uid")
	email := flag.String("email", "", "a verified email claim (links an enrolled account at its first sign-in)")
	name := flag.String("name", "", "a name claim (names a newcomer's account)")
	project := flag.String("project", "lexora-dev", "the project id (AUTH_PROJECT of the server)")
	ttl := flag.Duration("ttl", time.Hour, "validity")
	flag.Parse()
	if *sub == "" {
		fmt.Fprintln(os.Stderr, "devtoken: -sub is required")
		flag.Usage()
		os.Exit(2)
	}
	tok, err := auth.DevNamedToken(*project, *sub, *email, *name, *ttl)
	if err != nil {
		fmt.Fprintln(os.Stderr, "devtoken:", err)
		os.Exit(1)
	}
	fmt.Println(tok)
}
