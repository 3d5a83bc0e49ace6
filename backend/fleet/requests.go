package fleet

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

// The requests a follower makes on a connection of its own (its followed
// connection only pushes), each bounded by answerWait: ANSWER, PROMPT,
// SAY and LIMIT, as the command line's answer and friends send them.

// request dials d and runs fn on the connection within answerWait.
func request(d Dialer, fn func(*frame.Client) error) error {
	cl, err := d.Dial(answerWait)
	if err != nil {
		return err
	}
	defer cl.Close()
	cl.Conn().SetDeadline(time.Now().Add(answerWait))
	return fn(cl)
}

// noReply words a request its supervisor did not answer.
func noReply(err error) error {
	return fmt.Errorf("its supervisor did not answer (an older release?): %w", err)
}

func answerOver(d Dialer, c answer.Choice, question string) (answer.Given, error) {
	var g answer.Given
	err := request(d, func(cl *frame.Client) error {
		res, err := cl.Answer(frame.AnswerRequest{Choice: string(c.Kind), Option: c.Option, Text: c.Text, Question: question})
		switch {
		case err != nil:
			return noReply(err)
		case !res.OK:
			return errors.New(res.Error)
		}
		g = answer.Given{Option: res.Option, Label: res.Label, Question: res.Question}
		return nil
	})
	return g, err
}

func promptOver(d Dialer) (answer.Prompt, error) {
	var p answer.Prompt
	err := request(d, func(cl *frame.Client) error {
		pi, err := cl.Prompt()
		switch {
		case err != nil:
			return noReply(err)
		case pi.Error != "":
			return errors.New(pi.Error)
		}
		p = answer.Prompt{Family: pi.Family, Question: pi.Question, Labels: pi.Options, Multi: pi.Multi}
		return nil
	})
	return p, err
}

func sayOver(d Dialer, text string) error {
	return request(d, func(cl *frame.Client) error {
		res, err := cl.Say(frame.SayRequest{Text: text})
		switch {
		case err != nil:
			return noReply(err)
		case res.Busy:
			return fmt.Errorf("%w: %s", ErrBusy, strings.TrimPrefix(res.Error, "busy: "))
		case !res.OK:
			return errors.New(res.Error)
		}
		return nil
	})
}

func limitOver(d Dialer, req frame.LimitRequest) error {
	return request(d, func(cl *frame.Client) error {
		res, err := cl.Limit(req)
		switch {
		case err != nil:
			return noReply(err)
		case !res.OK:
			return errors.New(res.Error)
		}
		return nil
	})
}
