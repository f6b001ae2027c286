"""Scheduled runs: schedules (a cron expression, a time zone, a workflow file and its args), where they are stored
(the state directory, or the Postgres backend where the workers fire them), and the crontab / systemd entries that
fire them on one machine. The workers' tick loop is `lobsterlang.interpret.backend.scheduler`."""
