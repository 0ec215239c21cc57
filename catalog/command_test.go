package catalog

import (
	"testing"

	"leaselab/engine"
)

// Every kind of the engine's command table has words in the catalog.
func TestEveryCommandHasWords(t *testing.T) {
	for _, k := range engine.Commands() {
		if commandWords[k] == nil {
			t.Errorf("the catalog has no words for %q commands", k.Word())
		}
	}
	if len(commandWords) != len(engine.Commands()) {
		t.Errorf("the catalog says %d kinds of command, the engine has %d", len(commandWords), len(engine.Commands()))
	}
}
