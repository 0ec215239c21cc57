package main

import (
	"fmt"
	"os"
	"strings"

	"leaselab/catalog"
)

// readerLang is the language a command speaks to the person reading it:
// --lang when given, else Indonesian when the environment's locale is
// (LC_ALL, then LC_MESSAGES, then LANG, as POSIX orders them: the first
// that is set decides), else def.
func readerLang(given bool, val, def string) string {
	if given {
		return val
	}
	if envIndonesian() {
		return "id"
	}
	return def
}

// localeLang is the language the environment's locale names: "id" when
// it is Indonesian, else "en".
func localeLang() string {
	if envIndonesian() {
		return "id"
	}
	return "en"
}

// envIndonesian reports whether the locale the environment names is
// Indonesian (id, id_ID.UTF-8, ...).
func envIndonesian() bool {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := os.Getenv(k); v != "" {
			v = strings.ToLower(v)
			return v == "id" || strings.HasPrefix(v, "id_") || strings.HasPrefix(v, "id.") || strings.HasPrefix(v, "id-")
		}
	}
	return false
}

// sayErr is err in lang: an error of the engine or the course in lang's
// words where the catalog has them (catalog.MessageError), else as the
// error says it; in English, or without a language, as the error says it.
func sayErr(lang string, err error) string {
	if lang == "" || lang == "en" {
		return err.Error()
	}
	return catalog.MessageError(lang, err)
}

// sayMsg is fmt.Sprintf(format, args...) in lang's words where the
// catalog has the format (catalog.Message); in English, or without a
// language, as the format says it.
func sayMsg(lang, format string, args ...any) string {
	if lang == "" || lang == "en" {
		return fmt.Sprintf(format, args...)
	}
	return catalog.Message(lang, format, args...)
}

// say is key's text in lang, filled with args.
func say(lang, key string, args ...catalog.Arg) string {
	return string(catalog.Append(nil, lang, key, args...))
}
