package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/heimdall-tui/heimdall-tui/backend/answer"
	"github.com/heimdall-tui/heimdall-tui/wire/frame"
)

func newAnswerCmd(a *app) *cobra.Command {
	var option int
	var text, question string
	cmd := &cobra.Command{
		Use:   "answer ID allow|always|deny | answer ID --option N | answer ID --text WORDS",
		Short: "Answer the prompt a session shows (a permission, a question) without attaching",
		Long: "answer gives session ID's agent your choice for the dialog on its screen: allow (once),\n" +
			"always (allow from now on), deny, --option N (the dialog's option N), or --text WORDS (a\n" +
			"question's free-text option). The session's supervisor reads the dialog off the screen by\n" +
			"the classifier's rules and types the agent's own key for that option; it writes nothing,\n" +
			"and answer exits 1 with the reason, when the screen shows no such prompt or option, when\n" +
			"--question names another question than the one shown, or when someone typed into the\n" +
			"session in the last 2 s. It prints the option chosen.",
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			req := frame.AnswerRequest{Question: question}
			switch {
			case len(args) == 2 && (option != 0 || text != ""):
				return usageErr(a, cmd, "give one answer: %s, --option or --text", args[1])
			case len(args) == 2:
				req.Choice = args[1]
			case option != 0 && text != "":
				return usageErr(a, cmd, "give one answer: --option or --text")
			case option != 0:
				req.Choice, req.Option = string(answer.Option), option
			case text != "":
				req.Choice, req.Text = string(answer.Text), text
			default:
				return usageErr(a, cmd, "give an answer: allow, always, deny, --option N or --text WORDS")
			}
			if err := (answer.Choice{Kind: answer.Kind(req.Choice), Option: req.Option, Text: req.Text}).Check(); err != nil {
				return usageErr(a, cmd, "%v", err)
			}
			return a.withSession(id, func(c *frame.Client) error {
				c.Conn().SetDeadline(time.Now().Add(screenTimeout))
				res, err := c.Answer(req)
				if err != nil {
					return fmt.Errorf("answer %q (does its server support ANSWER?): %w", id, err)
				}
				if !res.OK {
					return fmt.Errorf("%s not answered: %s", id, res.Error)
				}
				fmt.Fprintf(a.stdout, "%s: %d. %s (%s)\n", id, res.Option, res.Label, res.Question)
				return nil
			})
		},
	}
	cmd.Flags().IntVar(&option, "option", 0, "choose the dialog's option N (1-9)")
	cmd.Flags().StringVar(&text, "text", "", "answer a question in words (its free-text option)")
	cmd.Flags().StringVar(&question, "question", "", "answer only if the dialog asks exactly this")
	return cmd
}
