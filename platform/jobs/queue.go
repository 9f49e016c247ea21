package jobs

import (
	"context"
	"fmt"

	"database/sql"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/quarrydocs/quarry/platform/store"
)

// queue is what the runner needs from River. River's client is generic over the driver's
// transaction type; riverQueue hides that, so SQLite and Postgres are two drivers of the same
// code rather than two designs.
type queue interface {
	insertMany(ctx context.Context, params []river.InsertManyParams) error
	// running lists the tasks River has handed to some process and not seen finish.
	running(ctx context.Context) ([]*rivertype.JobRow, error)
	start(ctx context.Context) error
	stop(ctx context.Context) error
	stopAndCancel(ctx context.Context) error
}

type riverQueue[TTx any] struct{ client *river.Client[TTx] }

func (q *riverQueue[TTx]) insertMany(ctx context.Context, params []river.InsertManyParams) error {
	if len(params) == 0 {
		return nil
	}
	_, err := q.client.InsertMany(ctx, params)
	return err
}

func (q *riverQueue[TTx]) running(ctx context.Context) ([]*rivertype.JobRow, error) {
	var rows []*rivertype.JobRow
	params := river.NewJobListParams().States(rivertype.JobStateRunning).First(1000)
	for {
		res, err := q.client.JobList(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("jobs: list running tasks: %w", err)
		}
		rows = append(rows, res.Jobs...)
		if len(res.Jobs) < 1000 {
			return rows, nil
		}
		params = params.After(res.LastCursor)
	}
}

func (q *riverQueue[TTx]) start(ctx context.Context) error { return q.client.Start(ctx) }
func (q *riverQueue[TTx]) stop(ctx context.Context) error  { return q.client.Stop(ctx) }
func (q *riverQueue[TTx]) stopAndCancel(ctx context.Context) error {
	return q.client.StopAndCancel(ctx)
}

func newRiverQueue[TTx any](ctx context.Context, st *store.Store, driver riverdriver.Driver[TTx], cfg *river.Config) (queue, error) {
	migrator, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: cfg.Logger})
	if err != nil {
		return nil, fmt.Errorf("jobs: river migrator: %w", err)
	}
	err = st.WithLock(ctx, func() error {
		_, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: river migrations: %w", err)
	}
	client, err := river.NewClient(driver, cfg)
	if err != nil {
		return nil, fmt.Errorf("jobs: river client: %w", err)
	}
	return &riverQueue[TTx]{client: client}, nil
}

// openQueue builds the River queue on the store's database.
func openQueue(ctx context.Context, st *store.Store, cfg *river.Config) (queue, error) {
	switch st.Dialect() {
	case store.Postgres:
		var d riverdriver.Driver[pgx.Tx] = riverpgxv5.New(st.Pool())
		return newRiverQueue(ctx, st, d, cfg)
	default:
		var d riverdriver.Driver[*sql.Tx] = riversqlite.New(st.DB())
		return newRiverQueue(ctx, st, d, cfg)
	}
}
