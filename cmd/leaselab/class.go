package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"leaselab/catalog"
	"leaselab/class"
)

// classOptions are the flags of the class database, shared by serve and
// class new so both reach the same classes.
type classOptions struct {
	data      string
	database  string
	retention time.Duration
	explicit  bool // --data or --database given: failing to open them stops serve
}

func (o *classOptions) flags(f *cmdFlags) {
	f.StringVar(&o.data, "data", class.DefaultData, "keep the classes (class mode) in an SQLite file in folder `DIR`, made if missing")
	f.StringVar(&o.database, "database", "", "keep the classes in PostgreSQL at `URL` (postgres://user:password@host/db) instead of --data: several replicas share it, and a vote on one reaches an instructor on another")
	f.DurationVar(&o.retention, "class-retention", class.DefaultRetention, "delete an ended class and its votes after `D`, a duration such as 720h")
}

// check returns what is wrong with the flags, "" if nothing.
func (o *classOptions) check() string {
	switch {
	case o.retention < time.Hour:
		return "--class-retention must be at least 1h"
	case o.database != "" && !strings.HasPrefix(o.database, "postgres://") && !strings.HasPrefix(o.database, "postgresql://"):
		return "--database: want a URL starting with postgres://"
	case o.database == "" && o.data == "":
		return "--data needs a folder"
	}
	return ""
}

// where says where the classes are kept, for the log: the folder, or the
// database's host without the password.
func (o *classOptions) where() string {
	if o.database == "" {
		return "sqlite " + filepath.Join(o.data, "class.db")
	}
	u, err := url.Parse(o.database)
	if err != nil {
		return "postgresql"
	}
	return "postgresql " + u.Host + u.Path
}

func (o *classOptions) open(ctx context.Context, log *slog.Logger) (*class.Service, error) {
	return class.Open(ctx, class.Config{
		Data: o.data, DatabaseURL: o.database, Retention: o.retention,
		Logf: func(format string, args ...any) { log.Error(fmt.Sprintf(format, args...)) },
	})
}

// purgeEvery is how often serve deletes the classes past their retention.
const purgeEvery = time.Hour

// purgeClasses deletes the classes past their retention at start and
// then every purgeEvery, until ctx ends.
func purgeClasses(ctx context.Context, classes *class.Service, log *slog.Logger) {
	t := time.NewTicker(purgeEvery)
	defer t.Stop()
	for {
		if n, err := classes.Purge(ctx); err == nil && n > 0 {
			log.Info("deleted ended classes past their retention", "classes", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

const classAbout = `
Opens a class on the server's class database (the same --data or --database
as serve) and prints its join code, the join link for the students and the
private instructor link: whoever holds that link runs the class, so give it
to nobody else. The links start with --base-url, the address students use.`

// classCmd runs "leaselab class new".
func classCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "new" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
			args = []string{"new", "--help"}
		} else {
			return usageError(stderr, "class", "the command is \"leaselab class new [flags]\"")
		}
	}
	f := newFlags("class", "leaselab class new [flags]", classAbout)
	f.env = true
	var o classOptions
	o.flags(f)
	var name, lang, base string
	f.StringVar(&name, "name", "", "the class's `NAME` shown to its students, such as \"Sistem Terdistribusi A\"")
	f.StringVar(&lang, "lang", "id", "the language of the links and of what this prints, `id` or en (what it prints: Indonesian when LC_ALL, LC_MESSAGES or LANG is, else English, unless --lang is given)")
	f.StringVar(&base, "base-url", "http://localhost:8080", "the address students use, a `URL` with the server's --base-path, such as https://leases.example.edu/leaselab")
	pos, code, ok := f.parse(args[1:], stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return f.fail(stderr, "unexpected argument %q", pos[0])
	}
	if msg := o.check(); msg != "" {
		return f.fail(stderr, "%s", msg)
	}
	if !slices.Contains(catalog.Langs(), lang) {
		return f.fail(stderr, "--lang: want one of %s", strings.Join(catalog.Langs(), ", "))
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return f.fail(stderr, "--base-url: want a URL such as https://leases.example.edu")
	}
	root := strings.TrimRight(base, "/")
	ctx := context.Background()
	svc, err := class.Open(ctx, class.Config{Data: o.data, DatabaseURL: o.database, Retention: o.retention})
	if err != nil {
		fmt.Fprintf(stderr, "leaselab class: %v\n", err)
		return 1
	}
	defer svc.Close()
	c, token, err := svc.Create(ctx, name, lang)
	if errors.Is(err, class.ErrBadInput) {
		return f.fail(stderr, "--name: %v", err)
	}
	if err != nil {
		fmt.Fprintf(stderr, "leaselab class: %v\n", err)
		return 1
	}
	l := readerLang(f.given("lang"), lang, "en")
	fmt.Fprintln(stdout, say(l, "cli.class.code", catalog.Str(c.Code)))
	fmt.Fprintln(stdout, say(l, "cli.class.join", catalog.Str(root+"/"+lang+"/join?code="+c.Code)))
	fmt.Fprintln(stdout, say(l, "cli.class.teach", catalog.Str(root+"/"+lang+"/teach/"+token)))
	fmt.Fprintln(stdout, catalog.T(l, "cli.class.private"))
	return 0
}
