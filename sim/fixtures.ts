// Moved to model/topology/builder.ts; this re-export stays until its last importers move.
export { MAC, TopoBuilder, twoSubnets, type VifOptions } from '../model/topology/builder.ts';
