import type React from 'react';
import { Button } from '@patternfly/react-core';
import { Td, Th, Thead, Tr } from '@patternfly/react-table';

/** The header row of a list whose last column holds each row's action (named for screen readers only). */
export const HeadWithActions: React.FC<{ columns: string[] }> = ({ columns }) => (
  <Thead>
    <Tr>
      {columns.map((column) => (
        <Th key={column}>{column}</Th>
      ))}
      <Th screenReaderText="Actions" />
    </Tr>
  </Thead>
);

/** A row's last cell: its one destructive action, or an empty cell where the action does not apply to that row. */
export const RowAction: React.FC<{ label: string; shown: boolean; onClick: () => void }> = ({ label, shown, onClick }) => (
  <Td dataLabel="Actions" isActionCell>
    {shown && (
      <Button variant="link" isDanger onClick={onClick}>
        {label}
      </Button>
    )}
  </Td>
);
