package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Role is what a connector is used as.
type Role string

const (
	RoleSource      Role = "source"
	RoleDestination Role = "destination"
)

// Connector is a stored source or destination. Config holds secrets sealed.
type Connector struct {
	ID        string
	Role      Role
	Name      string
	Type      string
	Config    map[string]any
	CreatedAt time.Time
	UpdatedAt *time.Time
}

// CreateConnector inserts c; a name already used by a connector of the same role is ErrConflict.
func (s *Store) CreateConnector(ctx context.Context, c *Connector) error {
	cfg, err := json.Marshal(c.Config)
	if err != nil {
		return fmt.Errorf("store: encode config: %w", err)
	}
	_, err = s.exec(ctx, `INSERT INTO connectors (id, role, name, type, config, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		c.ID, string(c.Role), c.Name, c.Type, string(cfg), ts(c.CreatedAt))
	if isUniqueViolation(err) {
		return ErrConflict
	}
	if err != nil {
		return fmt.Errorf("store: create connector: %w", err)
	}
	return nil
}

// UpdateConnectorConfig replaces a connector's config.
func (s *Store) UpdateConnectorConfig(ctx context.Context, role Role, id string, config map[string]any, at time.Time) error {
	cfg, err := json.Marshal(config)
	if err != nil {
		return fmt.Errorf("store: encode config: %w", err)
	}
	res, err := s.exec(ctx, `UPDATE connectors SET config = ?, updated_at = ? WHERE id = ? AND role = ?`, string(cfg), ts(at), id, string(role))
	if err != nil {
		return fmt.Errorf("store: update connector: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

const connectorCols = `id, role, name, type, config, created_at, updated_at`

func scanConnector(sc interface{ Scan(...any) error }) (*Connector, error) {
	var c Connector
	var role, cfg, created string
	var updated sql.NullString
	if err := sc.Scan(&c.ID, &role, &c.Name, &c.Type, &cfg, &created, &updated); err != nil {
		return nil, err
	}
	c.Role = Role(role)
	c.CreatedAt = parseTS(created)
	c.UpdatedAt = parseTSPtr(updated)
	if err := json.Unmarshal([]byte(cfg), &c.Config); err != nil {
		return nil, fmt.Errorf("store: decode config of %s: %w", c.ID, err)
	}
	if c.Config == nil {
		c.Config = map[string]any{}
	}
	return &c, nil
}

// GetConnector returns one connector of a role.
func (s *Store) GetConnector(ctx context.Context, role Role, id string) (*Connector, error) {
	c, err := scanConnector(s.queryRow(ctx, `SELECT `+connectorCols+` FROM connectors WHERE id = ? AND role = ?`, id, string(role)))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: get connector: %w", err)
	}
	return c, nil
}

// ListConnectors lists the connectors of a role, optionally of one type, oldest first.
func (s *Store) ListConnectors(ctx context.Context, role Role, typ string) ([]*Connector, error) {
	query := `SELECT ` + connectorCols + ` FROM connectors WHERE role = ?`
	args := []any{string(role)}
	if typ != "" {
		query += ` AND type = ?`
		args = append(args, typ)
	}
	rows, err := s.query(ctx, query+` ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list connectors: %w", err)
	}
	defer rows.Close()
	out := []*Connector{}
	for rows.Next() {
		c, err := scanConnector(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list connectors: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// DeleteConnector deletes a connector and its connection checks.
func (s *Store) DeleteConnector(ctx context.Context, role Role, id string) error {
	res, err := s.exec(ctx, `DELETE FROM connectors WHERE id = ? AND role = ?`, id, string(role))
	if err != nil {
		return fmt.Errorf("store: delete connector: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// Check is a connection check of a connector.
type Check struct {
	ID          string
	ConnectorID string
	Status      string // SCHEDULED, SUCCESS, FAILURE
	Reason      *string
	CreatedAt   time.Time
	ReportedAt  *time.Time
}

// CreateCheck records a scheduled connection check.
func (s *Store) CreateCheck(ctx context.Context, c *Check) error {
	_, err := s.exec(ctx, `INSERT INTO connection_checks (id, connector_id, status, created_at) VALUES (?, ?, ?, ?)`,
		c.ID, c.ConnectorID, c.Status, ts(c.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: create connection check: %w", err)
	}
	return nil
}

// FinishCheck records a check's outcome.
func (s *Store) FinishCheck(ctx context.Context, id, status string, reason *string, at time.Time) error {
	_, err := s.exec(ctx, `UPDATE connection_checks SET status = ?, reason = ?, reported_at = ? WHERE id = ?`, status, reason, ts(at), id)
	if err != nil {
		return fmt.Errorf("store: finish connection check: %w", err)
	}
	return nil
}

// LatestCheck returns a connector's most recent check.
func (s *Store) LatestCheck(ctx context.Context, connectorID string) (*Check, error) {
	var c Check
	var created string
	var reason, reported sql.NullString
	err := s.queryRow(ctx, `SELECT id, connector_id, status, reason, created_at, reported_at FROM connection_checks
		WHERE connector_id = ? ORDER BY created_at DESC, id DESC LIMIT 1`, connectorID).
		Scan(&c.ID, &c.ConnectorID, &c.Status, &reason, &created, &reported)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: latest connection check: %w", err)
	}
	c.CreatedAt, c.Reason, c.ReportedAt = parseTS(created), strPtr(reason), parseTSPtr(reported)
	return &c, nil
}

// GetCheck returns one check.
func (s *Store) GetCheck(ctx context.Context, id string) (*Check, error) {
	var c Check
	var created string
	var reason, reported sql.NullString
	err := s.queryRow(ctx, `SELECT id, connector_id, status, reason, created_at, reported_at FROM connection_checks WHERE id = ?`, id).
		Scan(&c.ID, &c.ConnectorID, &c.Status, &reason, &created, &reported)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: get connection check: %w", err)
	}
	c.CreatedAt, c.Reason, c.ReportedAt = parseTS(created), strPtr(reason), parseTSPtr(reported)
	return &c, nil
}
