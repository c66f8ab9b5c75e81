package sim

import "errors"

// loadPayloadDir loads an extracted release payload. It is wired to the plan/payload
// package once that package exists; until then scenarios with payloads cannot load.
func loadPayloadDir(dir string, ref ReleaseRef) ([]Manifest, error) {
	return nil, errors.New("payload loading is not wired yet (waits for plan/payload)")
}
