package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Node is one step of a workflow (partition, chunk, …).
type Node struct {
	ID       string         `json:"id"`
	Name     string         `json:"name"`
	Type     string         `json:"type"`
	Subtype  string         `json:"subtype"`
	Settings map[string]any `json:"settings"`
}

// Workflow is a stored workflow.
type Workflow struct {
	ID            string
	Name          string
	SourceID      *string
	DestinationID *string
	WorkflowType  *string
	Nodes         []Node
	Schedule      *string // cron expression
	Status        string  // active, inactive
	ReprocessAll  bool
	CreatedAt     time.Time
	UpdatedAt     *time.Time
	NextRunAt     *time.Time
}

const workflowCols = `id, name, source_id, destination_id, workflow_type, nodes, schedule, status, reprocess_all, created_at, updated_at, next_run_at`

func scanWorkflow(sc interface{ Scan(...any) error }) (*Workflow, error) {
	var w Workflow
	var src, dst, wt, sched, updated, next sql.NullString
	var nodes, created string
	var reprocess int
	if err := sc.Scan(&w.ID, &w.Name, &src, &dst, &wt, &nodes, &sched, &w.Status, &reprocess, &created, &updated, &next); err != nil {
		return nil, err
	}
	w.SourceID, w.DestinationID, w.WorkflowType, w.Schedule = strPtr(src), strPtr(dst), strPtr(wt), strPtr(sched)
	w.ReprocessAll = reprocess != 0
	w.CreatedAt, w.UpdatedAt, w.NextRunAt = parseTS(created), parseTSPtr(updated), parseTSPtr(next)
	if err := json.Unmarshal([]byte(nodes), &w.Nodes); err != nil {
		return nil, fmt.Errorf("store: decode nodes of %s: %w", w.ID, err)
	}
	if w.Nodes == nil {
		w.Nodes = []Node{}
	}
	return &w, nil
}

// SaveWorkflow inserts or replaces a workflow.
func (s *Store) SaveWorkflow(ctx context.Context, w *Workflow) error {
	nodes, err := json.Marshal(w.Nodes)
	if err != nil {
		return fmt.Errorf("store: encode nodes: %w", err)
	}
	_, err = s.exec(ctx, `INSERT INTO workflows (`+workflowCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, source_id = excluded.source_id,
		destination_id = excluded.destination_id, workflow_type = excluded.workflow_type, nodes = excluded.nodes,
		schedule = excluded.schedule, status = excluded.status, reprocess_all = excluded.reprocess_all,
		updated_at = excluded.updated_at, next_run_at = excluded.next_run_at`,
		w.ID, w.Name, w.SourceID, w.DestinationID, w.WorkflowType, string(nodes), w.Schedule, w.Status,
		boolInt(w.ReprocessAll), ts(w.CreatedAt), tsPtr(w.UpdatedAt), tsPtr(w.NextRunAt))
	if err != nil {
		return fmt.Errorf("store: save workflow: %w", err)
	}
	return nil
}

// GetWorkflow returns one workflow.
func (s *Store) GetWorkflow(ctx context.Context, id string) (*Workflow, error) {
	w, err := scanWorkflow(s.queryRow(ctx, `SELECT `+workflowCols+` FROM workflows WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: get workflow: %w", err)
	}
	return w, nil
}

// DeleteWorkflow deletes a workflow (its jobs stay, for their history).
func (s *Store) DeleteWorkflow(ctx context.Context, id string) error {
	res, err := s.exec(ctx, `DELETE FROM workflows WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("store: delete workflow: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// WorkflowFilter selects and pages workflows (platform.md §1.7).
type WorkflowFilter struct {
	SourceID, DestinationID, Status, Name string
	CreatedSince, CreatedBefore           *time.Time
	SortBy                                string // id, name, created_at, updated_at, status
	Desc                                  bool
	Page, PageSize                        int
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// ListWorkflows lists workflows matching f.
func (s *Store) ListWorkflows(ctx context.Context, f WorkflowFilter) ([]*Workflow, error) {
	var where []string
	var args []any
	add := func(cond string, v any) { where = append(where, cond); args = append(args, v) }
	if f.SourceID != "" {
		add("source_id = ?", f.SourceID)
	}
	if f.DestinationID != "" {
		add("destination_id = ?", f.DestinationID)
	}
	if f.Status != "" {
		add("status = ?", f.Status)
	}
	if f.Name != "" {
		// "name contains": the caller's %, _ and \ are characters, not LIKE patterns.
		add(`LOWER(name) LIKE ? ESCAPE '\'`, "%"+likeEscaper.Replace(strings.ToLower(f.Name))+"%")
	}
	if f.CreatedSince != nil {
		add("created_at >= ?", ts(*f.CreatedSince))
	}
	if f.CreatedBefore != nil {
		add("created_at < ?", ts(*f.CreatedBefore))
	}
	query := `SELECT ` + workflowCols + ` FROM workflows`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	col := map[string]string{"id": "id", "name": "name", "created_at": "created_at", "updated_at": "updated_at", "status": "status"}[f.SortBy]
	if col == "" {
		col = "id"
	}
	dir := "ASC"
	if f.Desc {
		dir = "DESC"
	}
	query += fmt.Sprintf(" ORDER BY %s %s, id %s", col, dir, dir)
	if f.PageSize > 0 {
		page := max(f.Page, 1)
		query += fmt.Sprintf(" LIMIT %d OFFSET %d", f.PageSize, (page-1)*f.PageSize)
	}
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list workflows: %w", err)
	}
	defer rows.Close()
	out := []*Workflow{}
	for rows.Next() {
		w, err := scanWorkflow(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list workflows: %w", err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// WorkflowsUsing lists the ids of workflows that use a connector.
func (s *Store) WorkflowsUsing(ctx context.Context, connectorID string) ([]string, error) {
	ids, err := s.queryStrings(ctx, `SELECT id FROM workflows WHERE source_id = ? OR destination_id = ? ORDER BY id`, connectorID, connectorID)
	if err != nil {
		return nil, fmt.Errorf("store: workflows using connector: %w", err)
	}
	return ids, nil
}

// DueWorkflows lists active scheduled workflows whose next run is at or before now.
func (s *Store) DueWorkflows(ctx context.Context, now time.Time) ([]*Workflow, error) {
	rows, err := s.query(ctx, `SELECT `+workflowCols+` FROM workflows WHERE status = 'active' AND schedule IS NOT NULL
		AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at`, ts(now))
	if err != nil {
		return nil, fmt.Errorf("store: due workflows: %w", err)
	}
	defer rows.Close()
	var out []*Workflow
	for rows.Next() {
		w, err := scanWorkflow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// AdvanceSchedule moves a workflow's next run from prev to next; false means another process
// already did (so only one of them starts the run).
func (s *Store) AdvanceSchedule(ctx context.Context, id string, prev, next time.Time) (bool, error) {
	res, err := s.exec(ctx, `UPDATE workflows SET next_run_at = ? WHERE id = ? AND next_run_at = ?`, ts(next), id, ts(prev))
	if err != nil {
		return false, fmt.Errorf("store: advance schedule: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}
