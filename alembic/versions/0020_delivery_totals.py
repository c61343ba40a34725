"""An index holding the repairs and hosts replaced of every delivery

``ix_deliveries_totals`` (owner_type, repairs, hosts_replaced): /metrics
sums them over the whole table at each scrape (reserve.db.metrics
delivery_totals); the index holds every column it reads, so the sum
reads it instead of every row of the table, a few times faster.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-04
"""
from alembic import op


revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade():
    op.create_index('ix_deliveries_totals', 'deliveries',
                    ['owner_type', 'repairs', 'hosts_replaced'])


def downgrade():
    op.drop_index('ix_deliveries_totals', table_name='deliveries')
