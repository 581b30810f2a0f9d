// k ranks: each spins d ms of its own CPU time, then MPI_Barrier; prints the median period.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double cpu(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){MPI_Init(&argc,&argv);int r,k;MPI_Comm_rank(MPI_COMM_WORLD,&r);MPI_Comm_size(MPI_COMM_WORLD,&k);
 double d=atof(argv[1])*1e-3;int n=atoi(argv[2]);double p[1000];volatile double x=0;
 for(int i=0;i<n+3;i++){double t0=MPI_Wtime();double c0=cpu();while(cpu()-c0<d)x+=1;MPI_Barrier(MPI_COMM_WORLD);if(i>=3)p[i-3]=MPI_Wtime()-t0;}
 if(r==0){qsort(p,n,sizeof(double),cmp);printf("k=%d d=%.1fms median %.2f ms  p10 %.2f p90 %.2f  ratio %.3f\n",k,d*1e3,p[n/2]*1e3,p[n/10]*1e3,p[9*n/10]*1e3,p[n/2]/d);}
 MPI_Finalize();}
