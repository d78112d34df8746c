package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strings"
)

// staticHandler serves the built web client in dir on GET and HEAD: its
// files as they are, and index.html for every other path without a file
// extension, so that the client's own routes (/review, /schedule, ...) load
// the app on a reload. Everything else goes to notFound: other methods, a
// missing file with an extension, and a path whose first segment starts
// with a capital letter, which is a function's name (/NoSuchFunction), not
// a client route. Vite's hashed files under /assets/ are cached for a
// year; everything else is revalidated, so a new build is picked up at the
// next load. It returns an error when dir has no index.html (the client
// was not built).
func staticHandler(dir string, notFound http.Handler) (http.Handler, error) {
	root := os.DirFS(dir)
	if _, err := fs.Stat(root, "index.html"); err != nil {
		return nil, fmt.Errorf("STATIC_DIR %s has no index.html (build the client with `make web`): %w", dir, err)
	}
	files := http.FileServerFS(root)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if (r.Method != http.MethodGet && r.Method != http.MethodHead) || (name != "" && 'A' <= name[0] && name[0] <= 'Z') {
			notFound.ServeHTTP(w, r)
			return
		}
		_, err := fs.Stat(root, name)
		missing := errors.Is(err, fs.ErrNotExist)
		if missing && path.Ext(name) != "" {
			notFound.ServeHTTP(w, r)
			return
		}
		if strings.HasPrefix(name, "assets/") {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		if missing {
			// A client route keeps its URL and gets the app.
			http.ServeFileFS(w, r, root, "index.html")
			return
		}
		files.ServeHTTP(w, r)
	}), nil
}
