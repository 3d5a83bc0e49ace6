package fleet

import "os/exec"

func found(prog string) bool {
	_, err := exec.LookPath(prog)
	return err == nil
}
